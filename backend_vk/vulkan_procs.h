/*
 * Every Vulkan entry point vkdml calls, as X-macros. Expanded into per-instance and per-device
 * function tables (struct vkdml_vk_instance_procs / vkdml_vk_device_procs), so no Vulkan
 * function pointer is global and two vkdml devices on two VkDevices never share a table.
 * Add an entry here before calling a new function through VK_CALL().
 */

#ifndef VK_INSTANCE_PFN
# define VK_INSTANCE_PFN(name)
#endif
#ifndef VK_INSTANCE_EXT_PFN
# define VK_INSTANCE_EXT_PFN(name) VK_INSTANCE_PFN(name)
#endif
#ifndef VK_DEVICE_PFN
# define VK_DEVICE_PFN(name)
#endif
#ifndef VK_DEVICE_EXT_PFN
# define VK_DEVICE_EXT_PFN(name) VK_DEVICE_PFN(name)
#endif

/* Instance functions (VK_INSTANCE_EXT_PFN: may be NULL when the extension is absent). */
VK_INSTANCE_PFN(vkDestroyInstance)
VK_INSTANCE_PFN(vkEnumeratePhysicalDevices)
VK_INSTANCE_PFN(vkGetPhysicalDeviceProperties)
VK_INSTANCE_PFN(vkGetPhysicalDeviceProperties2)
VK_INSTANCE_PFN(vkGetPhysicalDeviceFeatures2)
VK_INSTANCE_PFN(vkGetPhysicalDeviceMemoryProperties)
VK_INSTANCE_PFN(vkGetPhysicalDeviceMemoryProperties2)
VK_INSTANCE_PFN(vkGetPhysicalDeviceQueueFamilyProperties)
VK_INSTANCE_PFN(vkEnumerateDeviceExtensionProperties)
VK_INSTANCE_PFN(vkCreateDevice)
VK_INSTANCE_PFN(vkGetDeviceProcAddr)
VK_INSTANCE_EXT_PFN(vkCreateDebugUtilsMessengerEXT)
VK_INSTANCE_EXT_PFN(vkDestroyDebugUtilsMessengerEXT)
VK_INSTANCE_EXT_PFN(vkSetDebugUtilsObjectNameEXT)
VK_INSTANCE_EXT_PFN(vkCmdBeginDebugUtilsLabelEXT)
VK_INSTANCE_EXT_PFN(vkCmdEndDebugUtilsLabelEXT)
VK_INSTANCE_EXT_PFN(vkGetPhysicalDeviceCooperativeMatrixPropertiesNV)
VK_INSTANCE_EXT_PFN(vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR)

/* Device functions. */
VK_DEVICE_PFN(vkDestroyDevice)
VK_DEVICE_PFN(vkDeviceWaitIdle)
VK_DEVICE_PFN(vkGetDeviceQueue)
VK_DEVICE_PFN(vkQueueSubmit)
VK_DEVICE_PFN(vkQueueWaitIdle)
VK_DEVICE_PFN(vkAllocateMemory)
VK_DEVICE_PFN(vkFreeMemory)
VK_DEVICE_PFN(vkMapMemory)
VK_DEVICE_PFN(vkUnmapMemory)
VK_DEVICE_PFN(vkCreateBuffer)
VK_DEVICE_PFN(vkDestroyBuffer)
VK_DEVICE_PFN(vkGetBufferMemoryRequirements)
VK_DEVICE_PFN(vkBindBufferMemory)
VK_DEVICE_PFN(vkGetBufferDeviceAddress)
VK_DEVICE_PFN(vkCreateShaderModule)
VK_DEVICE_PFN(vkDestroyShaderModule)
VK_DEVICE_PFN(vkCreatePipelineLayout)
VK_DEVICE_PFN(vkDestroyPipelineLayout)
VK_DEVICE_PFN(vkCreateComputePipelines)
VK_DEVICE_PFN(vkDestroyPipeline)
VK_DEVICE_PFN(vkCreatePipelineCache)
VK_DEVICE_PFN(vkDestroyPipelineCache)
VK_DEVICE_PFN(vkGetPipelineCacheData)
VK_DEVICE_PFN(vkCreateCommandPool)
VK_DEVICE_PFN(vkDestroyCommandPool)
VK_DEVICE_PFN(vkResetCommandPool)
VK_DEVICE_PFN(vkAllocateCommandBuffers)
VK_DEVICE_PFN(vkFreeCommandBuffers)
VK_DEVICE_PFN(vkBeginCommandBuffer)
VK_DEVICE_PFN(vkEndCommandBuffer)
VK_DEVICE_PFN(vkCmdBindPipeline)
VK_DEVICE_PFN(vkCmdPushConstants)
VK_DEVICE_PFN(vkCmdDispatch)
VK_DEVICE_PFN(vkCmdPipelineBarrier2)
VK_DEVICE_PFN(vkCmdCopyBuffer)
VK_DEVICE_PFN(vkCmdFillBuffer)
VK_DEVICE_PFN(vkCreateFence)
VK_DEVICE_PFN(vkDestroyFence)
VK_DEVICE_PFN(vkWaitForFences)
VK_DEVICE_PFN(vkResetFences)
VK_DEVICE_PFN(vkGetFenceStatus)
VK_DEVICE_PFN(vkCreateSemaphore)
VK_DEVICE_PFN(vkDestroySemaphore)
VK_DEVICE_PFN(vkGetSemaphoreCounterValue)
VK_DEVICE_PFN(vkWaitSemaphores)
VK_DEVICE_PFN(vkSignalSemaphore)
VK_DEVICE_PFN(vkQueueSubmit2)
VK_DEVICE_PFN(vkFlushMappedMemoryRanges)
VK_DEVICE_PFN(vkInvalidateMappedMemoryRanges)
VK_DEVICE_PFN(vkCreateQueryPool)
VK_DEVICE_PFN(vkDestroyQueryPool)
VK_DEVICE_PFN(vkCmdResetQueryPool)
VK_DEVICE_PFN(vkCmdWriteTimestamp)
VK_DEVICE_PFN(vkGetQueryPoolResults)

#undef VK_INSTANCE_PFN
#undef VK_INSTANCE_EXT_PFN
#undef VK_DEVICE_PFN
#undef VK_DEVICE_EXT_PFN
